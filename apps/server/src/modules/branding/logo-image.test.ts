import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LOGO_STORED_MAX_SIDE } from '@layerline/contracts';
import { LogoRejectedError, prepareLogo, sanitiseSvg } from './logo-image.ts';

/** Through the two public functions; pixels are read back with sharp. */

const svg = (inner: string, attributes = 'width="100" height="50"') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ${attributes}>${inner}</svg>`;

async function pixelAt(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

describe('sanitiseSvg', () => {
  it('keeps drawing elements and their presentation attributes', () => {
    const out = sanitiseSvg(svg('<g transform="translate(1 2)"><rect x="0" y="0" width="10" height="10" fill="#ff0000"/><text x="1" y="9" font-size="8">Maple &amp; Moss</text></g>'));
    expect(out).toContain('<rect x="0" y="0" width="10" height="10" fill="#ff0000">');
    expect(out).toContain('<g transform="translate(1 2)">');
    expect(out).toContain('Maple &amp; Moss');
  });

  it('drops script, foreignObject, style, image and anything inside them', () => {
    const out = sanitiseSvg(
      svg(
        '<script>alert(1)</script><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>' +
          '<style>@import url(https://evil.example/x.css);</style><image href="https://evil.example/a.png"/>' +
          '<a href="javascript:alert(1)"><rect width="1" height="1"/></a><circle r="4"/>',
      ),
    );
    expect(out).not.toMatch(/script|foreignObject|style|image|evil|javascript|<a|<div|hi</);
    expect(out).toContain('<circle r="4">');
  });

  it('drops event handlers, style attributes, external hrefs and foreign url() references', () => {
    const out = sanitiseSvg(
      svg(
        '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>' +
          '<rect onload="alert(1)" onclick="x()" style="fill:url(https://evil.example/)" width="5" height="5" fill="url(#g)"/>' +
          '<rect width="5" height="5" fill="url(https://evil.example/p)" mask="url( \'//evil.example\' )"/>' +
          '<use xlink:href="#g"/><use href="https://evil.example/s.svg#a"/><use xlink:href="data:image/svg+xml;base64,AAAA"/>',
      ),
    );
    expect(out).not.toMatch(/onload|onclick|style=|evil|data:/);
    expect(out).toContain('fill="url(#g)"');
    expect(out).toContain('<use href="#g">');
    expect(out.match(/<use/g)).toHaveLength(3); // the elements stay, their foreign references do not
  });

  it('refuses a DOCTYPE (entities), a root that is not svg, and broken XML', () => {
    const entity = '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>';
    expect(() => sanitiseSvg(entity)).toThrow(LogoRejectedError);
    expect(() => sanitiseSvg('<html xmlns="http://www.w3.org/1999/xhtml"><svg/></html>')).toThrow(/root must be <svg>/);
    expect(() => sanitiseSvg('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>')).toThrow(/not well-formed/);
  });

  it('refuses a tree nested past the depth limit', () => {
    expect(() => sanitiseSvg(svg('<g>'.repeat(100) + '</g>'.repeat(100)))).toThrow(/nested too deeply/);
  });
});

describe('prepareLogo', () => {
  it('rasterises a sanitised SVG to a PNG at the stored size, keeping its proportions', async () => {
    const logo = await prepareLogo(Buffer.from(svg('<rect width="100" height="50" fill="#0000ff"/><script>x</script>')));
    expect(logo).toMatchObject({ format: 'svg', widthPx: LOGO_STORED_MAX_SIDE, heightPx: LOGO_STORED_MAX_SIDE / 2 });
    const meta = await sharp(logo.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', LOGO_STORED_MAX_SIDE, LOGO_STORED_MAX_SIDE / 2]);
    expect(await pixelAt(logo.png, 10, 10)).toEqual([0, 0, 255, 255]);
  });

  it('re-encodes a PNG, shrinking a large one and leaving a small one its size', async () => {
    const big = await sharp({ create: { width: 1600, height: 400, channels: 4, background: '#10b981' } }).png().toBuffer();
    expect(await prepareLogo(big)).toMatchObject({ format: 'png', widthPx: LOGO_STORED_MAX_SIDE, heightPx: 200 });
    const small = await sharp({ create: { width: 120, height: 60, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const kept = await prepareLogo(small);
    expect(kept).toMatchObject({ widthPx: 120, heightPx: 60 });
    expect(await pixelAt(kept.png, 5, 5)).toEqual([255, 0, 0, 255]);
  });

  it('refuses what is neither PNG nor SVG, a damaged PNG, a pixel bomb and an empty file', async () => {
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).jpeg().toBuffer();
    await expect(prepareLogo(jpeg)).rejects.toThrow(/PNG or an SVG/);
    await expect(prepareLogo(Buffer.from('<html><script>alert(1)</script></html>'))).rejects.toThrow(/PNG or an SVG/);
    const png = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#000' } }).png().toBuffer();
    await expect(prepareLogo(png.subarray(0, 60))).rejects.toThrow(LogoRejectedError);
    // 5000 × 5000 of one colour compresses to a few KB: the pixel limit, not the byte limit, stops it.
    const bomb = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#fff' } }).png().toBuffer();
    expect(bomb.length).toBeLessThan(200_000);
    await expect(prepareLogo(bomb)).rejects.toThrow(/4096 × 4096/);
    await expect(prepareLogo(Buffer.alloc(0))).rejects.toThrow(/empty/);
  });
});
