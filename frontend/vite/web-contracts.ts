import type * as Contracts from '@shortener/contracts';
import { runnerImport, type Plugin } from 'vite';
import { WEB_CONTRACTS_MODULES, webContractsSource } from './web-contracts-source';

/**
 * `@shortener/contracts/web`: the shared contracts as the browser needs them, made from
 * packages/contracts when the app is built or tested, so that zod stays out of the page.
 */
export function webContracts(): Plugin {
  const modules = new Map(WEB_CONTRACTS_MODULES.map((module) => [`\0${module.id}`, module]));
  return {
    name: 'web-contracts',
    enforce: 'pre',
    resolveId(id) {
      return modules.has(`\0${id}`) ? `\0${id}` : null;
    },
    async load(id) {
      const module = modules.get(id);
      if (!module) return null;
      // The contracts' source, as the app's own alias finds it: no build of the package needed.
      const source = await this.resolve('@shortener/contracts');
      if (!source) throw new Error('@shortener/contracts cannot be resolved.');
      const { module: contracts } = await runnerImport<typeof Contracts>(source.id, {
        configFile: false,
      });
      return webContractsSource(contracts, module);
    },
  };
}
