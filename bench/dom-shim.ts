import { SaxesParser } from 'saxes';

/**
 * Just enough of DOMParser for three.js's 3MFLoader in Node (tag-name and descendant
 * selectors). Builds a full tree, as a browser would, so the baseline pays what it
 * pays in a browser.
 */
class Attr {
  name: string;
  value: string;
  constructor(name: string, value: string) {
    this.name = name;
    this.value = value;
  }
}

export class ShimElement {
  nodeName: string;
  attributes: Attr[];
  children: ShimElement[] = [];
  parent: ShimElement | null;
  text = '';
  constructor(name: string, attrs: Record<string, string>, parent: ShimElement | null) {
    this.nodeName = name;
    this.attributes = Object.entries(attrs).map(([k, v]) => new Attr(k, v));
    this.parent = parent;
  }
  get tagName(): string {
    return this.nodeName;
  }
  get textContent(): string {
    return this.text + this.children.map((c) => c.textContent).join('');
  }
  getAttribute(name: string): string | null {
    return this.attributes.find((a) => a.name === name)?.value ?? null;
  }
  querySelectorAll(selector: string): ShimElement[] {
    const parts = selector.trim().split(/\s+/);
    let current: ShimElement[] = [this];
    for (const part of parts) {
      const next: ShimElement[] = [];
      const seen = new Set<ShimElement>();
      for (const root of current) {
        const stack = [...root.children].reverse();
        while (stack.length) {
          const e = stack.pop()!;
          if (e.nodeName === part && !seen.has(e)) {
            seen.add(e);
            next.push(e);
          }
          for (let i = e.children.length - 1; i >= 0; i--) stack.push(e.children[i]!);
        }
      }
      current = next;
    }
    return current;
  }
  /** Namespaces are not tracked; matching on the local name is enough for the loader. */
  getElementsByTagNameNS(_ns: string, local: string): ShimElement[] {
    const out: ShimElement[] = [];
    const stack = [...this.children].reverse();
    while (stack.length) {
      const e = stack.pop()!;
      if (e.nodeName === local || e.nodeName.endsWith(':' + local)) out.push(e);
      for (let i = e.children.length - 1; i >= 0; i--) stack.push(e.children[i]!);
    }
    return out;
  }
  querySelector(selector: string): ShimElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }
}

export class ShimDocument extends ShimElement {
  documentElement!: ShimElement;
}

export class DOMParserShim {
  parseFromString(text: string): ShimDocument {
    const doc = new ShimDocument('#document', {}, null);
    const parser = new SaxesParser({ xmlns: false, position: false });
    let cur: ShimElement = doc;
    parser.on('opentag', (node) => {
      const el = new ShimElement(node.name, node.attributes as Record<string, string>, cur);
      cur.children.push(el);
      cur = el;
    });
    parser.on('closetag', () => {
      cur = cur.parent ?? doc;
    });
    parser.on('text', (t) => {
      cur.text += t;
    });
    parser.write(text).close();
    doc.documentElement = doc.children[0]!;
    return doc;
  }
}
