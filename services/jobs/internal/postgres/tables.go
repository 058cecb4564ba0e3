package postgres

// table describes a table whose only member is a name, and the tables that
// reference its rows.
type table struct {
	name     string // SQL table
	column   string // the name column
	resource string // singular, for messages
	refs     []ref
}

// ref is a foreign key that points at a table's rows.
type ref struct {
	table    string // the referencing table
	column   string // its foreign key column
	resource string // plural, as the API names it
}

var (
	empresasTable = table{name: "empresas", column: "nome", resource: "empresa",
		refs: []ref{{table: "empregos", column: "empresa_id", resource: "empregos"}}}
	escolaridadesTable = table{name: "escolaridades", column: "nivel", resource: "escolaridade",
		refs: []ref{{table: "empregos", column: "escolaridade_id", resource: "empregos"}}}
	orgaosTable = table{name: "orgaos", column: "nome", resource: "orgao",
		refs: []ref{{table: "empregos", column: "orgao_id", resource: "empregos"}, {table: "cursos", column: "orgao_id", resource: "cursos"}}}
	categoriasTable = table{name: "categorias", column: "nome", resource: "categoria",
		refs: []ref{{table: "curso_categorias", column: "categoria_id", resource: "cursos"}}}
)
