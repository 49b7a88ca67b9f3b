export { ApiKeysSection } from './components/api-keys-section';
