package idempotency

// LockName is the text whose hash locks the key of client.
func LockName(client, key string) string { return id{client: client, key: key}.lockName() }
