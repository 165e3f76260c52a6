import { SaxesParser, type SaxesTagNS } from 'saxes';
import sharp, { type Sharp } from 'sharp';
import { LOGO_MAX_BYTES, LOGO_MAX_PIXELS, LOGO_STORED_MAX_SIDE } from '@layerline/contracts';

/**
 * A seller's logo, made safe to keep and to print: a PNG is decoded and re-encoded (nothing but
 * pixels survives), an SVG is rebuilt from an allow-list of elements and attributes and then
 * rasterised, so the packing slip only ever embeds a PNG we wrote.
 *
 * Why an allow-list and a rebuild: an SVG is a document that can run script (`<script>`, `onload=`),
 * embed HTML (`<foreignObject>`) and fetch from anywhere (`href="https://…"`, `url(http://…)` in
 * styles, external entities). Removing known-bad parts misses the next trick; keeping only known
 * drawing parts does not.
 */
export class LogoRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogoRejectedError';
  }
}

export interface StoredLogo {
  format: 'png' | 'svg';
  png: Buffer;
  widthPx: number;
  heightPx: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Reads the upload's bytes (never its declared type) and returns the PNG to store. */
export async function prepareLogo(bytes: Buffer): Promise<StoredLogo> {
  if (bytes.length === 0) throw new LogoRejectedError('The logo file is empty');
  if (bytes.length > LOGO_MAX_BYTES) throw new LogoRejectedError(`The logo is larger than ${LOGO_MAX_BYTES / 1024} KB`);
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { format: 'png', ...(await normalisePng(bytes)) };
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text)) {
    return { format: 'svg', ...(await rasteriseSvg(sanitiseSvg(text))) };
  }
  throw new LogoRejectedError('The logo must be a PNG or an SVG file');
}

async function normalisePng(bytes: Buffer): Promise<{ png: Buffer; widthPx: number; heightPx: number }> {
  try {
    const image = sharp(bytes, { limitInputPixels: LOGO_MAX_PIXELS, failOn: 'error' });
    const meta = await image.metadata();
    if (meta.format !== 'png') throw new LogoRejectedError('The logo must be a PNG or an SVG file');
    return await encodeBounded(image);
  } catch (error) {
    throw asRejection(error, 'The PNG could not be read (damaged, or more than 4096 × 4096 pixels)');
  }
}

async function rasteriseSvg(svg: string): Promise<{ png: Buffer; widthPx: number; heightPx: number }> {
  try {
    const meta = await sharp(Buffer.from(svg), { limitInputPixels: LOGO_MAX_PIXELS }).metadata();
    const side = Math.max(meta.width ?? 0, meta.height ?? 0);
    if (side <= 0) throw new LogoRejectedError('The SVG has no size (give its root a width and height or a viewBox)');
    // Rasterise at the density that makes the longest side the stored size, so small icons stay sharp.
    const density = Math.min(2400, Math.max(1, (72 * LOGO_STORED_MAX_SIDE) / side));
    return await encodeBounded(sharp(Buffer.from(svg), { density, limitInputPixels: LOGO_MAX_PIXELS }));
  } catch (error) {
    throw asRejection(error, 'The SVG could not be drawn');
  }
}

async function encodeBounded(image: Sharp): Promise<{ png: Buffer; widthPx: number; heightPx: number }> {
  const { data, info } = await image
    .resize(LOGO_STORED_MAX_SIDE, LOGO_STORED_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 9 })
    .toBuffer({ resolveWithObject: true });
  return { png: data, widthPx: info.width, heightPx: info.height };
}

function asRejection(error: unknown, message: string): LogoRejectedError {
  return error instanceof LogoRejectedError ? error : new LogoRejectedError(message);
}

// ---------------------------------------------------------------------------------------------
// SVG allow-list

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

/** Drawing elements only: no script, style, foreignObject, image, a, animate*, set, iframe… */
const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'symbol', 'use', 'title', 'desc',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan',
  'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'pattern',
]);
/** Elements whose text content is kept (text to draw, or a title). */
const TEXT_ELEMENTS = new Set(['text', 'tspan', 'title', 'desc']);

const ATTRIBUTES = new Set([
  'id', 'class', 'width', 'height', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy',
  'd', 'points', 'viewBox', 'preserveAspectRatio', 'transform', 'version',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap',
  'stroke-linejoin', 'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'opacity', 'color',
  'clip-path', 'clip-rule', 'clipPathUnits', 'mask', 'maskUnits', 'maskContentUnits', 'display', 'visibility',
  'offset', 'stop-color', 'stop-opacity', 'gradientUnits', 'gradientTransform', 'spreadMethod',
  'patternUnits', 'patternContentUnits', 'patternTransform',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline',
  'letter-spacing', 'dx', 'dy',
  'href',
]);

const MAX_ELEMENTS = 20_000;
const MAX_DEPTH = 64;

function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** A reference to something inside this document: `#id` or `url(#id)` only. */
const isLocalReference = (value: string): boolean => /^#[\w.-]+$/.test(value.trim());
/** A value that points outside the document (a `url(…)` not of the form `url(#id)`). */
const hasForeignUrl = (value: string): boolean => /url\s*\(\s*(?!['"]?#)/i.test(value);

/**
 * Rebuilds the SVG from what the allow-list keeps; an element not on it is dropped with everything
 * inside it. Refuses documents with a DOCTYPE (entities), too many elements or too deep a tree.
 */
export function sanitiseSvg(source: string): string {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const out: string[] = [];
  const open: { name: string; kept: boolean }[] = [];
  let skipping = 0; // depth inside a dropped element
  let elements = 0;
  let rootSeen = false;

  parser.on('doctype', () => {
    throw new LogoRejectedError('SVG files with a DOCTYPE are not accepted');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    elements += 1;
    if (elements > MAX_ELEMENTS) throw new LogoRejectedError('The SVG has too many elements');
    if (open.length >= MAX_DEPTH) throw new LogoRejectedError('The SVG is nested too deeply');
    if (!rootSeen) {
      if (tag.local !== 'svg' || tag.uri !== SVG_NS) throw new LogoRejectedError('The file is not an SVG (its root must be <svg> in the SVG namespace)');
      rootSeen = true;
    }
    const kept = skipping === 0 && tag.uri === SVG_NS && ELEMENTS.has(tag.local);
    open.push({ name: tag.local, kept });
    if (!kept) {
      skipping += 1;
      return;
    }
    let element = `<${tag.local}`;
    if (open.length === 1) element += ` xmlns="${SVG_NS}"`;
    for (const attribute of Object.values(tag.attributes)) {
      const { local, uri, value } = attribute;
      const isHref = local === 'href' && (uri === '' || uri === XLINK_NS);
      if (!isHref && uri !== '') continue; // other namespaces (inkscape:, sodipodi:, xml:…) carry nothing drawn
      if (!ATTRIBUTES.has(local)) continue; // on* handlers, style, and anything unknown
      if (isHref && !isLocalReference(value)) continue;
      if (hasForeignUrl(value)) continue;
      element += ` ${local}="${escapeXml(value)}"`;
    }
    out.push(`${element}>`);
  });
  parser.on('text', (text: string) => {
    const current = open.at(-1);
    if (skipping === 0 && current && TEXT_ELEMENTS.has(current.name)) out.push(escapeXml(text));
  });
  parser.on('closetag', () => {
    const closed = open.pop()!;
    if (!closed.kept) {
      skipping -= 1;
      return;
    }
    out.push(`</${closed.name}>`);
  });

  try {
    parser.write(source).close();
  } catch (error) {
    if (error instanceof LogoRejectedError) throw error;
    throw new LogoRejectedError('The SVG is not well-formed XML');
  }
  if (!rootSeen) throw new LogoRejectedError('The file is not an SVG');
  return out.join('');
}
