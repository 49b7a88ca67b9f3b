import { RouterProvider } from 'react-router-dom';
import { SessionProvider } from '../features/auth';
import { createRouter } from './router';

const router = createRouter();

export function App() {
  return (
    <SessionProvider>
      <RouterProvider router={router} />
    </SessionProvider>
  );
}
