// not_found is decided first (docs/api.md, "Listings are active or inactive"). A collection filter naming a listing the caller's
// workspace does not have (an unknown id, another workspace's listing, a deleted one) answers
// 404 not_found on every collection with a listing filter, never an empty page and never 403;
// an inactive listing of the workspace answers 403 listing_inactive. Over HTTP only.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { pmsWorkspace } from './support/workspaces';

const COLLECTIONS = ['/v1/reservations', '/v1/conversations', '/v1/reviews', '/v1/requests'];

describe('collection filters naming a listing', () => {
  let t: TestStack;
  let mine: Awaited<ReturnType<typeof pmsWorkspace>>;
  let theirs: Awaited<ReturnType<typeof pmsWorkspace>>;

  beforeAll(async () => {
    t = await startTestStack();
    mine = await pmsWorkspace(t, 'PMS-D', ['kept', 'paused', 'gone']);
    theirs = await pmsWorkspace(t, 'PMS-D', ['foreign']);
  });
  afterAll(async () => {
    await t.stop();
  });

  const idOf = (w: typeof mine, name: string) => w.listings.get(`${w.account}-${name}`)!;

  it('answers the page for a listing of the workspace', async () => {
    for (const path of COLLECTIONS) {
      const res = await mine.api<{ data: unknown[] }>('GET', `${path}?property_id=${idOf(mine, 'kept')}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.data).toEqual([]);
    }
  });

  it('answers 404 not_found for an unknown listing id and for another workspace’s listing', async () => {
    for (const path of COLLECTIONS) {
      for (const id of ['lst_doesnotexist000000', idOf(theirs, 'foreign')]) {
        const res = await mine.api<ErrorBody>('GET', `${path}?property_id=${id}`);
        expect({ path, id, status: res.status, code: res.body.error?.code }).toEqual({ path, id, status: 404, code: 'not_found' });
      }
    }
    // The owner still reads its own listing's collections.
    expect((await theirs.api('GET', `/v1/reservations?property_id=${idOf(theirs, 'foreign')}`)).status).toBe(200);
  });

  it('decides 404 for a deleted listing and 403 for an inactive one', async () => {
    const gone = idOf(mine, 'gone');
    const paused = idOf(mine, 'paused');
    expect((await mine.api('DELETE', `/v1/listings/${gone}`)).status).toBe(200);
    expect((await mine.api('PATCH', `/v1/listings/${paused}`, { active: false })).status).toBe(200);
    for (const path of COLLECTIONS) {
      const deleted = await mine.api<ErrorBody>('GET', `${path}?property_id=${gone}`);
      expect({ path, status: deleted.status, code: deleted.body.error?.code }).toEqual({ path, status: 404, code: 'not_found' });
      // The activity cache of each service follows the toggle within moments.
      let inactive = await mine.api<ErrorBody>('GET', `${path}?property_id=${paused}`);
      await eventually(async () => (inactive = await mine.api<ErrorBody>('GET', `${path}?property_id=${paused}`)).status === 403, 5000, `403 on ${path}`);
      expect({ path, status: inactive.status, code: inactive.body.error?.code, ids: inactive.body.error?.listing_ids }).toEqual({
        path,
        status: 403,
        code: 'listing_inactive',
        ids: [paused],
      });
    }
  });
});
