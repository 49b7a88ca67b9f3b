# nginx's error lines, without a query string. nginx names the request a line is about as the
# client wrote it, `request: "GET /r/abc1234?utm_token=… HTTP/1.1"`, and its upstream and
# referrer URLs alike; a query holds what people shorten and sign in with (tokens, OAuth
# codes), and no log line of the product carries one (docs/operations/edge.md). Each goes,
# from its `?` to the blank or quote that ends it, before the line is printed. nginx's error
# log has no format to leave it out (nor a level that never names a request).
#
# POSIX awk, for both edges that run nginx: infra/edge.mjs (`npm run stack`) pipes nginx's
# stderr through it, and docker-compose.yml's edge (busybox awk) the same.
{
    gsub(/[?][^ \t"]*/, "")
    print
    fflush()
}
