import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { periodic, type PeriodicJob, type PeriodicOptions } from '@shortener/chassis';

/**
 * A provider with a background job (chassis `periodic`): started once the application has
 * started, and stopped as it shuts down, the run in flight awaited so that no query outlives
 * the database connection.
 */
export abstract class PeriodicProvider implements OnApplicationBootstrap, OnApplicationShutdown {
  private job: PeriodicJob | undefined;

  /** The job, read at bootstrap: the injected config and logger are there by then. */
  protected abstract periodicJob(): PeriodicOptions;

  onApplicationBootstrap(): void {
    this.job = periodic(this.periodicJob());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
  }
}
