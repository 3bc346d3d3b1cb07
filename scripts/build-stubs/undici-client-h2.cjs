// Stands in for undici's lib/dispatcher/client-h2.js in the compiled CLI (scripts/build.ts). undici
// speaks HTTP/2 only when a connector offers "h2" in TLS ALPN (`allowH2`), which topicrawl never
// sets; the real module loads node:http2 (~15 ms before a crawl's first request, measured).
'use strict';
module.exports = function connectH2() {
  throw new Error('HTTP/2 is not built into topicrawl (undici allowH2 is off)');
};
