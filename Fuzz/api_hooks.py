"""schemathesis hooks for Fuzz/api.sh: NDJSON feed bodies (a string in the schema) sent as is."""
import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogatepass")
