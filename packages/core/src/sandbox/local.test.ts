/** The SandboxProvider contract on the local provider: directories and child processes. */
import { tempDir } from '../test-support/temp.js';
import { LocalSandboxProvider } from './local.js';
import { runSandboxProviderContract } from './provider.contract.js';

runSandboxProviderContract('local', async () => ({
  provider: new LocalSandboxProvider(await tempDir('satchel-sandboxes-')),
  // tempDir removes the directory after each test.
  cleanup: async () => undefined,
}));
