import type { PlannedAttempt } from '../catalog/types.ts';

/** Where the executor is in the plan, and how often it has retried the current endpoint. */
export class PlanCursor {
  private readonly plan: readonly PlannedAttempt[];
  private i = 0;
  retries = 0;
  /** Labels of the pooled credentials already tried at the current endpoint. */
  readonly tried = new Set<string>();

  constructor(plan: readonly PlannedAttempt[]) {
    this.plan = plan;
  }

  get done(): boolean {
    return this.i < 0 || this.i >= this.plan.length;
  }

  get current(): PlannedAttempt {
    return this.plan[this.i]!;
  }

  /** The plan's last endpoint: the one a transient failure retries (retry-policy.ts). */
  get isLast(): boolean {
    return this.i === this.plan.length - 1;
  }

  nextEndpoint(): void {
    this.i++;
    this.retries = 0;
    this.tried.clear();
  }

  /** On to the first attempt for another model; done when there is none. */
  nextModel(): void {
    const model = this.plan[this.i]!.model;
    let k = this.i + 1;
    while (k < this.plan.length && this.plan[k]!.model === model) k++;
    this.i = k;
    this.retries = 0;
    this.tried.clear();
  }
}
