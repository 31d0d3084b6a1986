/** The Hono environment of the web app: what its middleware puts in the context. */
import type { Satchel, WebSession } from '@satchel/core';

/** A browser signed in with a session cookie. */
export interface SignedIn {
  /** The engine acting as the session's user: authorised and audited as the REST API's calls. */
  readonly satchel: Satchel;
  readonly principal: string;
  readonly session: WebSession;
  /** The token every state-changing request of this session must carry (security.ts). */
  readonly csrf: string;
}

export interface WebVariables {
  /** Set by `sessions()` for every request: null when no live session cookie came with it. */
  signedIn: SignedIn | null;
  /** Whether the request reached us over HTTPS (directly, or as a trusted proxy says). */
  secure: boolean;
}

export interface WebEnv {
  Variables: WebVariables;
}
