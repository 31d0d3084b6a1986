/** Operations on sign-in for people: login links and the browser sessions they start. */
import { z } from 'zod';
import { CreateLoginLinkSchema, LoginLinkSchema, WebSessionSchema } from '../schemas/index.js';
import { operation } from './operation.js';

export const createLoginLink = operation({
  name: 'createLoginLink',
  summary:
    'A one-time, short-lived sign-in link for the web app: for yourself with an unnarrowed key, or for any user (admins)',
  tag: 'access',
  args: [],
  options: CreateLoginLinkSchema,
  result: LoginLinkSchema,
  access: { self: true },
  mutates: true,
  http: { method: 'POST', path: '/login-links', status: 201 },
});

export const listWebSessions = operation({
  name: 'listWebSessions',
  summary: 'Your signed-in browser sessions that have not expired or been revoked',
  tag: 'access',
  args: [],
  result: z.array(WebSessionSchema),
  access: { self: true },
  mutates: false,
  http: { method: 'GET', path: '/web-sessions', list: true },
});

export const revokeWebSession = operation({
  name: 'revokeWebSession',
  summary: 'Sign a browser session out (yours, or anyone’s for admins)',
  tag: 'access',
  args: [['id', z.string().min(1).max(100)]],
  access: { self: true },
  mutates: true,
  http: { method: 'DELETE', path: '/web-sessions/:id', status: 204 },
});
