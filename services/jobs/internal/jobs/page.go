package jobs

// Paging defaults of every list.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
)

// Page selects one page of a list; Number counts from 1.
type Page struct {
	Number  int
	PerPage int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int64 { return int64(p.Number-1) * int64(p.PerPage) }

// Meta describes the page a list response holds.
type Meta struct {
	Page    int   `json:"page"`
	PerPage int   `json:"per_page"`
	Total   int64 `json:"total"`
}

// List is the envelope of every list response.
type List[T any] struct {
	Data []T  `json:"data"`
	Meta Meta `json:"meta"`
}

// NewList wraps one page of items; a page without items holds an empty array.
func NewList[T any](items []T, p Page, total int64) *List[T] {
	if items == nil {
		items = []T{}
	}
	return &List[T]{Data: items, Meta: Meta{Page: p.Number, PerPage: p.PerPage, Total: total}}
}

// MaxEmbedded bounds each reverse array of a single-resource answer (the
// empregos of an Empresa, say): it embeds the first MaxEmbedded items by id,
// says how many there are in all, and links the list that pages through
// them, so an answer costs the same whatever the number of rows.
const MaxEmbedded = 100
