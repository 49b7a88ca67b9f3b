// First, so that feature styles imported below come later and refine it.
import './app/global.css';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './app/app';
import { shellOf } from './app/shell';
import { AppRoutes, preloadPageAt } from './app/router';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

// The home page comes prerendered (vite/prerender-home.ts): the app takes that markup over
// instead of painting the page again. Any other page is rendered here: over the frame its HTML
// may carry (a profile page's, for a signed-in visitor), which the first render replaces
// with the same frame, or into an empty #root; so is a prerendered file asked for by another
// path (/index.html).
const shell = window.location.pathname === '/' ? shellOf(container) : null;
const app = (
  <App shell={shell ?? undefined}>
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  </App>
);
// In a transition: React would render the page in slices, letting the browser paint and
// answer input in between; Preact, which the app runs on, renders it at once
// (docs/architecture.md, "Big renders are transitions").
const render = () =>
  startTransition(() => {
    if (shell) hydrateRoot(container, app);
    else createRoot(container).render(app);
  });
// Over a profile page's frame, which shows meanwhile, the page's own chunk first (its HTML
// preloads it): the page then renders with its content, not its wait.
if (!shell && container.hasChildNodes()) void preloadPageAt(window.location.pathname).then(render);
else render();
