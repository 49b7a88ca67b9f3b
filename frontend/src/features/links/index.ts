export { LinkDetail } from './components/link-detail';
export { LinkList } from './components/link-list';
export { ShortenForm } from './components/shorten-form';
export { UndoDeleteNotice, UndoDeleteProvider } from './undo-delete';
export { useLinkLookup } from './hooks/use-link-lookup';
