/* global window, document, getComputedStyle, NodeFilter */
// What the phone journeys measure inside the page (tests/e2e/phone.e2e-spec.ts), loaded into
// every page of their browser context. Plain script: the tests are typechecked without the
// DOM library, and these read layout the way a person sees it.
(() => {
  const TOLERANCE = 0.5;

  /** A Range over the first occurrence of `text` in `root`, across its text nodes. */
  function rangeOf(root, text) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    let whole = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      nodes.push({ node, start: whole.length });
      whole += node.data;
    }
    const at = whole.indexOf(text);
    if (at < 0) return null;
    const locate = (offset, isEnd) => {
      for (const entry of nodes) {
        const end = entry.start + entry.node.data.length;
        if (offset < end || (isEnd && offset === end)) {
          return { node: entry.node, offset: offset - entry.start };
        }
      }
      return null;
    };
    const start = locate(at, false);
    const end = locate(at + text.length, true);
    if (!start || !end) return null;
    const range = document.createRange();
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset);
    return range;
  }

  const boxes = (range) =>
    [...range.getClientRects()].filter((rect) => rect.width > 0 && rect.height > 0);

  /** Ancestors that cut what overflows them (overflow other than visible, or a clip). */
  function clippers(node) {
    const found = [];
    for (let element = node.parentElement; element; element = element.parentElement) {
      const style = getComputedStyle(element);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') {
        found.push({ element, hidden: true });
      } else if (
        style.overflowX !== 'visible' ||
        style.overflowY !== 'visible' ||
        style.clip !== 'auto' ||
        style.clipPath !== 'none'
      ) {
        found.push({ element, hidden: false });
      }
    }
    return found;
  }

  const inside = (rect, box) =>
    rect.left >= box.left - TOLERANCE &&
    rect.right <= box.right + TOLERANCE &&
    rect.top >= box.top - TOLERANCE &&
    rect.bottom <= box.bottom + TOLERANCE;

  window.__measure = {
    /**
     * Whether `text`, inside `root`, is on screen in full: laid out, within the window's
     * width, and not cut by any ancestor that clips (an ellipsis, overflow, a 1 px clip).
     */
    fullyShown(root, text) {
      const range = rangeOf(root, text);
      if (!range) return { shown: false, why: `"${text}" is not in the element` };
      // In the middle of the window, clear of the sticky top bar, for the hit test below.
      root.scrollIntoView({ block: 'center' });
      const rects = boxes(range);
      if (rects.length === 0) return { shown: false, why: `"${text}" has no box` };
      const viewport = { left: 0, top: -1e9, right: window.innerWidth, bottom: 1e9 };
      for (const rect of rects) {
        if (!inside(rect, viewport)) return { shown: false, why: `"${text}" leaves the window` };
        for (const { element, hidden } of clippers(range.startContainer)) {
          const box = element.getBoundingClientRect();
          if (hidden || !inside(rect, box)) {
            return {
              shown: false,
              why: `"${text}" is cut by <${element.tagName.toLowerCase()} class="${element.className}">`,
            };
          }
        }
      }
      // Nothing drawn over it (a button beside it, say): the text is what is hit there.
      const owner = range.commonAncestorContainer;
      const ownerElement = owner.nodeType === 1 ? owner : owner.parentElement;
      for (const rect of rects) {
        const y = (rect.top + rect.bottom) / 2;
        for (const x of [rect.left + 1, (rect.left + rect.right) / 2, rect.right - 1]) {
          const hit = document.elementFromPoint(x, y);
          if (hit && !ownerElement.contains(hit) && !hit.contains(ownerElement)) {
            return {
              shown: false,
              why: `"${text}" is covered by <${hit.tagName.toLowerCase()} class="${hit.className}">`,
            };
          }
        }
      }
      return { shown: true, why: '' };
    },

    /** How many lines `text` (default: all of root's text) spreads over. */
    lines(root, text) {
      const range = text === undefined ? document.createRange() : rangeOf(root, text);
      if (!range) return 0;
      if (text === undefined) range.selectNodeContents(root);
      const tops = [];
      for (const rect of boxes(range)) {
        const middle = (rect.top + rect.bottom) / 2;
        if (!tops.some((top) => Math.abs(top - middle) < rect.height / 2)) tops.push(middle);
      }
      return tops.length;
    },

    /** Width of `text` in the element's own font, and the width its content box offers. */
    textFit(element, text) {
      const style = getComputedStyle(element);
      const canvas = document.createElement('canvas');
      const context = canvas.getContext('2d');
      context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      return {
        text: context.measureText(text).width,
        room: element.clientWidth - padding,
        scrollWidth: element.scrollWidth,
        clientWidth: element.clientWidth,
      };
    },
  };
})();
