/**
 * A list or search call: `await` it for one page (`{ data, pagination, meta }`), or iterate it
 * with `for await` for every item of every page. Nothing is sent until it is awaited or
 * iterated, and each of the two sends its own requests.
 */
export type PagedCall<Page, Item> = Promise<Page> & AsyncIterable<Item>;

export function pagedCall<Page, Item>(
  firstPage: () => Promise<Page>,
  everyItem: () => AsyncIterator<Item>,
): PagedCall<Page, Item> {
  let page: Promise<Page> | undefined;
  const sent = () => {
    page ??= firstPage();
    return page;
  };
  const call: PromiseLike<Page> & AsyncIterable<Item> & Pick<Promise<Page>, 'catch' | 'finally'> = {
    // biome-ignore lint/suspicious/noThenProperty: a call is awaited like the promise it stands for
    then: (onFulfilled, onRejected) => sent().then(onFulfilled, onRejected),
    catch: (onRejected) => sent().catch(onRejected),
    finally: (onFinally) => sent().finally(onFinally),
    [Symbol.asyncIterator]: everyItem,
  };
  return Object.assign(call, { [Symbol.toStringTag]: 'PagedCall' }) as PagedCall<Page, Item>;
}
