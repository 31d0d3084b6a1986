/** Tables of the people-facing features: web sign-in (0013), comments and share links (0014). */

/** One-time sign-in links for the web app, by the SHA-256 of their token; deleted when used. */
export interface WebLoginLinksTable {
  token_hash: string;
  principal_id: string;
  created_by: string;
  created_at: number;
  expires_at: number;
}

/** Browser sessions of the web app; the cookie's secret is kept only as its SHA-256. */
export interface WebSessionsTable {
  id: string;
  secret_hash: string;
  principal_id: string;
  user_agent: string | null;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Review comments on line ranges of file versions, in threads (engine/comments.ts). */
export interface CommentsTable {
  id: string;
  workspace_id: string;
  /** The thread's first comment; a thread's first comment is its own thread. */
  thread_id: string;
  parent_id: string | null;
  path: string;
  /** The anchor (first comment only): the version's seq and its lines, 1-based, inclusive. */
  version: number | null;
  start_line: number | null;
  end_line: number | null;
  body: string;
  author: string;
  session: string | null;
  created_at: number;
  /** Set on the thread's first comment while the thread is resolved. */
  resolved_at: number | null;
  resolved_by: string | null;
}

/** Read-only links for people without an account (engine/share-links.ts). */
export interface ShareLinksTable {
  id: string;
  workspace_id: string;
  path: string;
  kind: 'file' | 'directory';
  /** SHA-256 of the token's secret: the token itself is never stored. */
  token_hash: string;
  /** scrypt of the password (`scrypt$N$r$p$salt$hash`), null for none. */
  password_hash: string | null;
  expires_at: number;
  max_downloads: number | null;
  downloads: number;
  created_by: string;
  created_at: number;
  revoked_at: number | null;
  revoked_by: string | null;
}
