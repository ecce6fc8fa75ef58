// Dependency-free on purpose: packages/platform's own tests import this file by its relative path
// (@vrp/testkit depends on @vrp/platform, so platform cannot depend on testkit without a cycle).

/** The error a call fails with, when it is a `type`; fails the test when the call succeeds or throws anything else. */
export async function rejectionOf<E>(p: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
