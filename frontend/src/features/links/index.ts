export { LinkDetail } from './components/link-detail';
export { LinkList } from './components/link-list';
export { ShortenForm } from './components/shorten-form';
