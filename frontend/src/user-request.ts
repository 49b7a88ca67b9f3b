// The signed-in frames' first script (vite/prerender-home.ts builds it on its own and loads it
// ahead of main.tsx's): userData asked for before the app's script has even arrived.
import { startUserRequest } from './features/auth/api/get-user';

startUserRequest();
