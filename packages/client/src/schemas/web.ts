/**
 * Sign-in for people (docs/web.md): one-time login links an admin or the principal itself
 * creates, and the browser sessions they start.
 */
import { z } from 'zod';
import { PrincipalNameSchema } from './access.js';

/** Longest a login link may live: it is a bearer credential until it is used. */
export const MAX_LOGIN_LINK_SECONDS = 3600;
/** A login link's lifetime unless the caller asks for a shorter or longer one. */
export const DEFAULT_LOGIN_LINK_SECONDS = 900;

export const CreateLoginLinkSchema = z.object({
  principal: PrincipalNameSchema.optional().describe(
    'the user who signs in (default: yourself); only admins name someone else',
  ),
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(MAX_LOGIN_LINK_SECONDS)
    .optional()
    .describe(`seconds until the link expires unused (default ${DEFAULT_LOGIN_LINK_SECONDS})`),
});
export type CreateLoginLink = z.infer<typeof CreateLoginLinkSchema>;

export const LoginLinkSchema = z.object({
  principal: z.string(),
  /** The secret: shown once, stored only as its hash. */
  token: z.string(),
  url: z
    .string()
    .describe(
      'where to sign in: absolute when the server knows its public URL, else relative to it',
    ),
  expiresAt: z.string(),
});
export type LoginLink = z.infer<typeof LoginLinkSchema>;

export const WebSessionSchema = z.object({
  id: z.string().describe('the session’s public id (not the cookie, which is never shown)'),
  principal: z.string(),
  userAgent: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
});
export type WebSession = z.infer<typeof WebSessionSchema>;
