/**
 * Type-level proof, with @codesandbox/sdk's own types, that the `codesandbox` provider fits the
 * real SDK. The SDK's .d.ts files use extensionless relative imports that only resolve with
 * `moduleResolution: Bundler`, so this file is checked by `tsc -p tsconfig.sdk.json` (part of
 * `pnpm typecheck`) and left out of the NodeNext program. (The tests go further: they run the
 * real SDK against a wire-level stand-in, test-support/codesandbox-wire.ts.)
 */
import type { Command, FileSystem, SandboxClient, Sandboxes } from '@codesandbox/sdk';
import type { CsbClient, CsbCommand, CsbSandboxes } from './codesandbox.js';
import type { CsbFileSystem } from './codesandbox-tree.js';

type Fits<T extends true> = T;

// The real SDK can be handed to the provider.
export type SandboxesFit = Fits<Sandboxes extends CsbSandboxes ? true : false>;
export type ClientFits = Fits<SandboxClient extends CsbClient ? true : false>;
export type FsFits = Fits<FileSystem extends CsbFileSystem ? true : false>;
export type CommandFits = Fits<Command extends CsbCommand ? true : false>;
