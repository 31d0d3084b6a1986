/**
 * Type-level proof, with @codesandbox/sdk's own types, that the `codesandbox` provider and its
 * test stand-in fit the real SDK. The SDK's .d.ts files use extensionless relative imports that
 * only resolve with `moduleResolution: Bundler`, so this file is checked by `tsc -p
 * tsconfig.sdk.json` (part of `pnpm typecheck`) and left out of the NodeNext program.
 */
import type {
  CommandError,
  FileSystem,
  SandboxClient,
  SandboxCommands,
  Sandboxes,
} from '@codesandbox/sdk';
import type { CsbClient, CsbSandboxes } from './codesandbox.js';
import type { CommandErrorClass, StandInCommands, StandInFs } from './codesandbox-stand-in.js';
import type { CsbFileSystem } from './codesandbox-tree.js';

type Fits<T extends true> = T;
type FsMethods = keyof CsbFileSystem;

// The real SDK can be handed to the provider.
export type SandboxesFit = Fits<Sandboxes extends CsbSandboxes ? true : false>;
export type ClientFits = Fits<SandboxClient extends CsbClient ? true : false>;
export type FsFits = Fits<FileSystem extends CsbFileSystem ? true : false>;
// The stand-in implements the real methods, signatures included.
export type StandInFsFits = Fits<StandInFs extends Pick<FileSystem, FsMethods> ? true : false>;
export type StandInCommandsFit = Fits<
  StandInCommands extends Pick<SandboxCommands, 'run'> ? true : false
>;
export type CommandErrorFits = Fits<typeof CommandError extends CommandErrorClass ? true : false>;
