package load

import (
	"fmt"
	"net/http"
)

// Area is one of the API's two areas, each with its own base URL and client.
type Area string

// The two areas of the API document.
const (
	SearchArea Area = "search"
	JobsArea   Area = "jobs"
)

// Resource is a kind of row the load creates, and names with a member
// carrying the run's marker.
type Resource struct {
	// Name identifies the resource in reports ("servico").
	Name string
	// Area and Path locate its collection: POST Path creates, PUT Path/{id}
	// replaces.
	Area Area
	Path string
	// NameField is the member (and column) holding the marked name.
	NameField string
	// subjects start the names of the rows.
	subjects []string
	// body builds a valid request body named name; n varies the content.
	body func(g *generator, name string, n uint64) map[string]any
}

// The resources the load writes.
var (
	Servico      = &Resource{Name: "servico", Area: SearchArea, Path: "/api/v1/admin/services", NameField: "nome_servico", subjects: phrases, body: servicoBody}
	Emprego      = &Resource{Name: "emprego", Area: JobsArea, Path: "/api/v1/empregos", NameField: "titulo", subjects: cargos, body: empregoBody}
	Escolaridade = &Resource{Name: "escolaridade", Area: JobsArea, Path: "/api/v1/escolaridades", NameField: "nivel", subjects: niveis, body: nameOnlyBody("nivel")}
	Categoria    = &Resource{Name: "categoria", Area: JobsArea, Path: "/api/v1/categorias", NameField: "nome", subjects: nomesCategoria, body: nameOnlyBody("nome")}
)

// Resources lists every resource the load can create.
var Resources = []*Resource{Servico, Emprego, Escolaridade, Categoria}

// Kind tells what an operation does to its resource.
type Kind int

// The kinds of operation.
const (
	Read Kind = iota
	Create
	Update
)

// Operation is one request shape of the mix.
type Operation struct {
	// Name is how the mix and the reports call it ("create-servico").
	Name string
	Kind Kind
	// Resource is the row written by a Create or an Update; nil for a Read.
	Resource *Resource
	// Area and Path give a Read's route; query builds its query string.
	Area  Area
	Path  string
	query func(g *generator, n uint64) string
}

// Method is the HTTP method of the operation.
func (op *Operation) Method() string {
	switch op.Kind {
	case Create:
		return http.MethodPost
	case Update:
		return http.MethodPut
	default:
		return http.MethodGet
	}
}

// area is the area the operation's request goes to.
func (op *Operation) area() Area {
	if op.Resource != nil {
		return op.Resource.Area
	}
	return op.Area
}

// route is the path of the operation's collection or read route.
func (op *Operation) route() string {
	if op.Resource != nil {
		return op.Resource.Path
	}
	return op.Path
}

// Operations lists every operation a mix can weigh, by name.
var Operations = []*Operation{
	{Name: "create-servico", Kind: Create, Resource: Servico},
	{Name: "create-emprego", Kind: Create, Resource: Emprego},
	{Name: "create-escolaridade", Kind: Create, Resource: Escolaridade},
	{Name: "create-categoria", Kind: Create, Resource: Categoria},
	{Name: "update-servico", Kind: Update, Resource: Servico},
	{Name: "update-escolaridade", Kind: Update, Resource: Escolaridade},
	{Name: "list-servicos", Kind: Read, Area: SearchArea, Path: "/api/v1/admin/services", query: pageQuery},
	{Name: "list-empregos", Kind: Read, Area: JobsArea, Path: "/api/v1/empregos", query: pageQuery},
	{Name: "search", Kind: Read, Area: SearchArea, Path: "/api/v1/search", query: searchQuery},
	{Name: "schemas", Kind: Read, Area: SearchArea, Path: "/api/v1/admin/migration/schemas"},
}

// operation returns the operation called name.
func operation(name string) (*Operation, error) {
	for _, op := range Operations {
		if op.Name == name {
			return op, nil
		}
	}
	return nil, fmt.Errorf("unknown operation %q (known: %s)", name, operationNames())
}
