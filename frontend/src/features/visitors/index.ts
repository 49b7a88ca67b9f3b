export { VisitorList } from './components/visitor-list';
