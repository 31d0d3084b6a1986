/** The SandboxProvider contract on the codesandbox provider, over a local stand-in of the SDK. */

import { tempDir } from '../test-support/temp.js';
import { CodeSandboxProvider } from './codesandbox.js';
import { StandInSandboxes } from './codesandbox-stand-in.js';
import { runSandboxProviderContract } from './provider.contract.js';

runSandboxProviderContract('codesandbox (stand-in SDK)', async () => ({
  provider: new CodeSandboxProvider(new StandInSandboxes(await tempDir('satchel-csb-'))),
  // tempDir removes the directory after each test.
  cleanup: async () => undefined,
}));
