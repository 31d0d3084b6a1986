/**
 * `@satchel/core/schemas` (CONTRACT.md): the zod schemas of @satchel/client, under the name users
 * rely on. The one re-export of a whole module, because it is an alias of another package's entry.
 */
export * from '@satchel/client/schemas/index.js';
