import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Resolves a command the way a shell would: a name with a slash is taken as a path, a bare name
 * is looked up in PATH (the only environment variable this integration reads). Returns the
 * absolute path of an executable regular file, or null.
 */
export async function findExecutable(name: string, searchPath: string = process.env.PATH ?? ''): Promise<string | null> {
  if (name.length === 0) return null;
  const candidates = name.includes('/')
    ? [path.resolve(name)]
    : searchPath
        .split(path.delimiter)
        .filter((dir) => dir.length > 0 && path.isAbsolute(dir))
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
