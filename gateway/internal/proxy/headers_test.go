package proxy

import "testing"

func TestIsIdentityHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"X-Client-Id", true},
		{"x-department", true},
		{"X-Auth-Request-User", true},
		{"X-User-Email", true},
		{"X-Forwarded-User", true},
		{"X_Forwarded_User", true},
		{"x_client_id", true},
		{"Remote-User", true},
		{"X-Remote-Group", true},
		{"X-Authenticated-Userid", true},
		{"X-Consumer-Username", true},
		{"Authorization", false},
		{"X-Request-Id", false},
		{"Content-Type", false},
		{"X-Forwarded-Proto", false},
		{"User-Agent", false},
	}
	for _, tt := range tests {
		verdict := map[bool]string{true: " is an identity header", false: " is passed through"}[tt.want]
		t.Run(tt.name+verdict, func(t *testing.T) {
			t.Parallel()
			if got := isIdentityHeader(tt.name); got != tt.want {
				t.Fatalf("isIdentityHeader(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}
