import type { MatcherFunction } from '@testing-library/preact';

/**
 * Matches the innermost element whose whole text is `text`, even when the text is laid out
 * in several spans (a list item's URL, the detail's short link).
 */
export function wholeText(text: string): MatcherFunction {
  return (_content, element) =>
    element?.textContent === text &&
    ![...element.children].some((child) => child.textContent === text);
}
