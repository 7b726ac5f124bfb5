// The page once it is quiet (observe.rs, Session::observe_quiet), looked for in the page itself:
// the same looks as there, with no round trip between them. Arguments: the probes, the time to
// wait at most (ms), the looks in a row that must find the page quiet. Answers what `look` does,
// or { failed } when the looking itself broke. Only the last look reads the page and drains its
// events: until then they stay in the observer, which a page that goes hands on to the next.
const [probes, within, looks] = arguments;
const done = arguments[arguments.length - 1];
const deadline = Date.now() + within;
// The requests in flight are counted from the observer's start: start it where it is missing.
windupObserver(window);
const quietNow = () => pending(documents(true)) === 0;
(async () => {
  let quiet = quietNow() ? 1 : 0;
  while (quiet < looks && Date.now() < deadline) {
    // A page that was quiet is looked at again soon; one still busy, a little later.
    await new Promise((resume) => setTimeout(resume, quiet > 0 ? 20 : 50));
    quiet = quietNow() ? quiet + 1 : 0;
  }
  done(look(probes));
})().catch((error) => done({ failed: String(error) }));
