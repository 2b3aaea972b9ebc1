// Package cdp drives a headless Chromium through the Chrome DevTools
// Protocol, for tests that look at a page as a browser shows it (the
// serve page's browser test). It speaks the protocol over a pipe
// (--remote-debugging-pipe: NUL-ended JSON messages on file descriptors 3
// and 4), so no port is opened and nothing else on the machine can
// connect to the browser.
//
// Every call takes a context and returns when it is done; a browser that
// stops answering fails the call, never hangs it.
package cdp
