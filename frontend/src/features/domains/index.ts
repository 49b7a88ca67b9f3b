export { DomainsSection } from './components/domains-section';
