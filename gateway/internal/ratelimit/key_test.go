package ratelimit

import "testing"

// The client's and the department's keys, built together in one string,
// are the keys built one by one, whatever the subjects hold.
func TestKeyPairIsTheTwoKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ client, dept string }{
		{"jobs-admin", "saude"},
		{"a b{c}:d", "obras/públicas"},
		{"", "x"},
	} {
		c, d := keyPair(tt.client, tt.dept)
		if c != key(KindClient, tt.client) || d != key(KindDepartment, tt.dept) {
			t.Fatalf("keyPair(%q, %q) = %q, %q; want %q, %q", tt.client, tt.dept, c, d,
				key(KindClient, tt.client), key(KindDepartment, tt.dept))
		}
	}
	if got := key(KindClient, "a b{c}"); got != "{client:a+b%7Bc%7D}" {
		t.Fatalf("key = %q", got)
	}
}
