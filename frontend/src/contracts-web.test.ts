import * as contracts from '@shortener/contracts';
import { describe, expect, it } from 'vitest';
import { WEB_CONTRACTS_MODULES, webContractsDeclarations } from '../vite/web-contracts-source';

describe("the web contracts' declarations", () => {
  for (const module of WEB_CONTRACTS_MODULES) {
    it(`${module.declarations} is what vite/web-contracts-source.ts writes of its lists`, async () => {
      await expect(webContractsDeclarations(contracts, module)).toMatchFileSnapshot(
        `../${module.declarations}`,
      );
    });
  }
});
