/**
 * `/claim` (docs/web.md, "Claim"): accept ownership of a workspace an agent offered, by the
 * claim code it gave (typed in, or in the link `/claim?code=…`). Accepting is a POST with the
 * CSRF token — opening the link alone changes nothing. Then the workspace's access page.
 */
import { Hono } from 'hono';
import { textField } from '../form-fields.js';
import { Layout } from '../layout.js';
import { requireSignIn, signedForm } from '../requests.js';
import type { WebEnv } from '../web-env.js';

export function claimRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/claim', (c) => {
    const signedIn = requireSignIn(c);
    const code = c.req.query('code') ?? '';
    return c.html(
      <Layout title="Claim a workspace" signedIn={signedIn}>
        <h1>Claim a workspace</h1>
        <p>
          An agent that offers you a workspace gives you a claim code, or a link to this page with
          the code filled in. Accepting makes you its owner, as{' '}
          <strong>{signedIn.principal}</strong>.
        </p>
        <form method="post" action="/claim" class="stack">
          <input type="hidden" name="csrf" value={signedIn.csrf} />
          <label for="claim-code">Claim code</label>
          <input
            id="claim-code"
            name="code"
            value={code}
            required
            autocomplete="off"
            spellcheck={false}
            maxlength={200}
          />
          <button type="submit">Accept and become owner</button>
        </form>
      </Layout>,
    );
  });

  app.post('/claim', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const transfer = await signedIn.satchel.acceptTransfer(textField(form, 'code'));
    return c.redirect(`/w/${encodeURIComponent(transfer.workspace)}/access?claimed=1`, 303);
  });

  return app;
}
