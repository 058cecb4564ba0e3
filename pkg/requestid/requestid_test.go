package requestid_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/requestid"
)

func TestNewIsAVersion7UUIDOfNow(t *testing.T) {
	before := time.Now().UnixMilli()
	seen := map[string]bool{}
	for range 10000 {
		s := requestid.New()
		id, err := uuid.Parse(s)
		if err != nil || id.String() != s {
			t.Fatalf("New() = %q: not a canonical UUID (%v)", s, err)
		}
		if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
			t.Fatalf("New() = %q: version %d, variant %v; want 7, RFC 4122", s, id.Version(), id.Variant())
		}
		ms := int64(id[0])<<40 | int64(id[1])<<32 | int64(id[2])<<24 | int64(id[3])<<16 | int64(id[4])<<8 | int64(id[5])
		if ms < before || ms > time.Now().UnixMilli() {
			t.Fatalf("New() = %q carries the time %d ms, not now (%d)", s, ms, before)
		}
		if !requestid.Valid(s) {
			t.Fatalf("New() = %q is not a valid id to honour", s)
		}
		if seen[s] {
			t.Fatalf("New() gave %q twice", s)
		}
		seen[s] = true
	}
}

func TestNewIsOrderedByTheMillisecond(t *testing.T) {
	a := requestid.New()
	time.Sleep(2 * time.Millisecond)
	if b := requestid.New(); b[:13] <= a[:13] {
		t.Fatalf("an id made later sorts first by its time: %q then %q", a, b)
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = requestid.New()
		}
	})
}
