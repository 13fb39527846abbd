import { ChatfoldError } from './chatfold-error.ts';

/**
 * Imports an optional peer dependency (a provider SDK) on first use, so chatfold's core never
 * loads it; a missing package becomes `E_MISSING_DEPENDENCY` with the install command.
 */
export async function importPeer<T>(name: string, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw new ChatfoldError(
      'E_MISSING_DEPENDENCY',
      `${feature} needs the optional peer dependency ${name}: npm install ${name} (or pass a client)`,
      { dependency: name, feature },
      { cause },
    );
  }
}
