import { DEFAULT_MAX_UPLOAD_BYTES, MODEL_FORMATS } from '@layerline/contracts';
import { formatBytes } from '../design-format.ts';

/**
 * The checks the browser can make before sending a byte: the extension and the size. The server
 * repeats them and also looks inside the file (a renamed web page is refused there, not here).
 */
export function refusalBeforeUpload(
  file: { name: string; size: number },
  maxBytes = DEFAULT_MAX_UPLOAD_BYTES,
): string | null {
  const extension = file.name.includes('.')
    ? file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase()
    : '';
  if (!(MODEL_FORMATS as readonly string[]).includes(extension)) {
    return `Not a 3D model we can print: upload an STL, 3MF or OBJ file${extension ? ` (this one is .${extension})` : ''}.`;
  }
  if (file.size === 0) return 'The file is empty.';
  if (file.size > maxBytes) {
    return `The file is ${formatBytes(file.size)}; the limit is ${formatBytes(maxBytes)}. Simplify the mesh or export it as 3MF, which is smaller.`;
  }
  return null;
}
