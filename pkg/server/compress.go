package server

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// CompressMinSize is the smallest body Compress compresses: below it the
// coding's own framing and the client's work to undo it cost more than the
// bytes saved.
const CompressMinSize = 1 << 10

// Compress compresses the answers of h for clients that accept them so
// (Accept-Encoding naming zstd or gzip; zstd when both are, at the same
// weight), when the body
// is CompressMinSize or longer and of a type not compressed already (an
// image, an archive). Every answer gets Vary: Accept-Encoding, compressed or
// not, so that caches keep the two apart. A list page of the catalog is
// mostly repeated JSON names and Portuguese words: about a sixth of its size
// compressed, which is what a citizen's phone or a chat agent downloads.
//
// gzip runs at level 1 (nginx's default gzip_comp_level), zstd at its
// fastest: within a few percent of the default levels' saving at about
// half their CPU (BenchmarkCompress). Request bodies are not decompressed:
// problem.DecodeJSON answers a body sent with a content coding with a 415.
//
// The library (github.com/klauspost/compress/gzhttp) is the compressing
// http.Handler wrapper of the compression package fasthttp already brings:
// it holds back the first bytes to decide on the body's size and type, and
// leaves 1xx, 204, 304 and HEAD answers alone.
func Compress(h http.Handler) http.Handler {
	compressed := compressWrapper(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Lines of a list header are one list (RFC 9110, 5.3): the
		// wrapper reads the first line only, and "identity" then "gzip"
		// would be read as identity alone.
		if v := r.Header.Values(acceptEncoding); len(v) > 1 {
			r.Header.Set(acceptEncoding, strings.Join(v, ", "))
		}
		compressed(w, r)
	})
}

const acceptEncoding = "Accept-Encoding"

var compressWrapper = func() func(http.Handler) http.HandlerFunc {
	w, err := gzhttp.NewWrapper(
		gzhttp.MinSize(CompressMinSize),
		gzhttp.CompressionLevel(gzip.BestSpeed),
	)
	if err != nil { // the options above are constants: a bad one is a programming error
		panic(err)
	}
	return w
}()
