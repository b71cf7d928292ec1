import type { Locator } from 'playwright-core';

/** Where a text is drawn: its left and right edges, in CSS pixels. */
export interface DrawnBox {
  left: number;
  right: number;
}

/**
 * Where each of `texts` is drawn in `line`, left to right: the first text node holding it
 * whole. Throws when one is in no single text node (cut in two by the page, say).
 */
export function drawnAt(line: Locator, texts: string[]): Promise<DrawnBox[]> {
  return line.evaluate((element, wanted) => {
    const nodes: Text[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
    return wanted.map((text) => {
      for (const node of nodes) {
        const at = node.data.indexOf(text);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + text.length);
        const boxes = [...range.getClientRects()];
        return {
          left: Math.min(...boxes.map((box) => box.left)),
          right: Math.max(...boxes.map((box) => box.right)),
        };
      }
      throw new Error(`${text} is not drawn`);
    });
  }, texts);
}

/** True when each box is drawn wholly right of the next one: right-to-left words in their order. */
export function rightToLeft(boxes: DrawnBox[]): boolean {
  return boxes.every((box, i) => i === 0 || box.right <= boxes[i - 1]!.left + 0.5);
}

/** True when each box is drawn wholly left of the next one: words in their written order. */
export function leftToRight(boxes: DrawnBox[]): boolean {
  return boxes.every((box, i) => i === 0 || box.left >= boxes[i - 1]!.right - 0.5);
}
