import { StrictMode, type ReactNode } from 'react';
import { SessionProvider, type ShellSession } from '../features/auth';
import { UndoDeleteProvider } from '../features/links';

/**
 * The application around its router: the browser's in the page (main.tsx), a static one in
 * the build's prerender of the home page (prerender.tsx), the same tree in both so that the
 * page takes over the prerendered markup as it is.
 */
export function App({ shell, children }: { shell?: ShellSession; children: ReactNode }) {
  return (
    <StrictMode>
      <SessionProvider shell={shell}>
        <UndoDeleteProvider>{children}</UndoDeleteProvider>
      </SessionProvider>
    </StrictMode>
  );
}
