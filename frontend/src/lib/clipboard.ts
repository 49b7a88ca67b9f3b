/** Copies text; a failure (no permission, insecure page) is only logged, as SPEC section 8 says. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (error) {
    console.error('Failed to copy to the clipboard:', error);
    return false;
  }
}
