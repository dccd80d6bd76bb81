import { AppError } from '../errors/app-error';

export interface MasterKey {
  version: number;
  key: Buffer;
}

/**
 * The versioned master keys that wrap credential data keys. New data keys are wrapped
 * with the newest version; older versions stay configured until `toolgate credentials
 * rotate` has re-wrapped everything, then they can be retired.
 */
export class MasterKeyring {
  readonly current: MasterKey;
  private readonly byVersion: ReadonlyMap<number, Buffer>;

  constructor(keys: readonly MasterKey[]) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    const byVersion = new Map<number, Buffer>();
    for (const { version, key } of keys) {
      if (!Number.isInteger(version) || version < 1) throw new Error(`bad key version ${version}`);
      if (key.length !== 32) throw new Error(`master key v${version} must be 32 bytes`);
      if (byVersion.has(version)) throw new Error(`master key v${version} is configured twice`);
      byVersion.set(version, key);
    }
    this.byVersion = byVersion;
    const newest = Math.max(...byVersion.keys());
    this.current = { version: newest, key: byVersion.get(newest)! };
  }

  get versions(): number[] {
    return [...this.byVersion.keys()].sort((a, b) => b - a);
  }

  /** The key of a version; a retired or unknown version makes the secret unreadable. */
  key(version: number): Buffer {
    const key = this.byVersion.get(version);
    if (!key) throw new AppError('CREDENTIALS_UNREADABLE', `Master key version ${version} is not configured`);
    return key;
  }
}
