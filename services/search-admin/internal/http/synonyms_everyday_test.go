package http_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// everydayAutor marks the rules of migration 00015, programmesAutor those
// of migration 00016.
const (
	everydayAutor   = "search-admin-everyday"
	programmesAutor = "search-admin-programmes"
)

// everydayRules returns the rules migrations 00015 and 00016 added, by
// their autor.
func (a *testApp) everydayRules(t testing.TB) []catalog.Synonym {
	t.Helper()
	return append(a.rulesBy(t, everydayAutor), a.rulesBy(t, programmesAutor)...)
}

// rulesBy returns the rules whose autor is autor.
func (a *testApp) rulesBy(t testing.TB, autor string) []catalog.Synonym {
	t.Helper()
	var rows []struct {
		ID       string
		Root     string
		Synonyms []byte
	}
	if err := a.db.Raw("SELECT id, root, synonyms FROM search_synonyms WHERE autor = ? ORDER BY root", autor).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := make([]catalog.Synonym, len(rows))
	for i, r := range rows {
		out[i] = catalog.Synonym{ID: r.ID, Root: r.Root}
		if err := json.Unmarshal(r.Synonyms, &out[i].Synonyms); err != nil {
			t.Fatalf("rule %s: %v", r.ID, err)
		}
	}
	return out
}

func firedIDs(page catalog.SearchResult) []string {
	var ids []string
	for _, f := range page.Meta.Synonyms {
		ids = append(ids, f.ID)
	}
	return ids
}

// TestEverydaySynonymsFindTheOfficialServiceName: a citizen's phrase that
// shares no word with the service it means finds it first through a rule
// of migrations 00015 and 00016, named in meta.synonyms, ahead of a service that
// shares a word with the phrase but not its meaning.
func TestEverydaySynonymsFindTheOfficialServiceName(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	everyday := map[string]bool{}
	for _, r := range app.everydayRules(t) {
		everyday[r.ID] = true
	}
	for _, s := range []map[string]any{
		{"nome_servico": "Manutenção de iluminação pública", "resumo": "Reparo de lâmpadas e luminárias nas vias."},
		{"nome_servico": "Remoção de poste de madeira", "resumo": "Retirada de postes antigos de sinalização."},
		{"nome_servico": "Capina e roçada de áreas públicas", "resumo": "Limpeza de vegetação em praças e canteiros."},
		{"nome_servico": "Emissão de 2ª via do IPTU", "resumo": "Documento de arrecadação do imposto predial e territorial urbano."},
		{"nome_servico": "Aluguel de salão de festas da casa de cultura", "resumo": "Reserva de espaço para eventos."},
		{"nome_servico": "Indicação do condutor infrator", "resumo": "Identifique o real infrator de uma autuação."},
		{"nome_servico": "Matrícula na educação infantil", "resumo": "Inscrição de crianças de 0 a 5 anos."},
		{"nome_servico": "Recolhimento de animais abandonados", "resumo": "Resgate pelo centro de controle de zoonoses."},
		{"nome_servico": "Baixa de inscrição municipal", "resumo": "Encerramento de atividade de empresa."},
		{"nome_servico": "Fiscalização de obras", "resumo": "Denúncia de obra irregular."},
		{"nome_servico": "Pedido de acesso à informação", "resumo": "Solicitação de dados públicos nos termos da Lei nº 12.527/2011."},
		{"nome_servico": "Atendimento de defesa do consumidor", "resumo": "Reclamação contra fornecedores de produtos e serviços."},
		{"nome_servico": "Inscrição no Cadastro Único", "resumo": "Registro de famílias de baixa renda para programas sociais."},
	} {
		app.publish(t, s)
	}
	tests := []struct{ q, want string }{
		{"poste apagado", "Manutenção de iluminação pública"},
		{"Lâmpada queimada na minha rua", "Manutenção de iluminação pública"},
		{"mato alto", "Capina e roçada de áreas públicas"},
		{"carnê da casa", "Emissão de 2ª via do IPTU"},
		{"quem dirigia o carro", "Indicação do condutor infrator"},
		{"vaga na creche", "Matrícula na educação infantil"},
		{"cachorro de rua", "Recolhimento de animais abandonados"},
		{"fechar empresa", "Baixa de inscrição municipal"},
		{"obra do vizinho", "Fiscalização de obras"},
		{"creche", "Matrícula na educação infantil"},
		{"LAI", "Pedido de acesso à informação"},
		{"procon", "Atendimento de defesa do consumidor"},
		{"como entrar no bolsa família", "Inscrição no Cadastro Único"},
	}
	for _, tt := range tests {
		page := app.searchPage(t, url.Values{"q": {tt.q}, "mode": {catalog.ModeKeyword}})
		fired := slices.ContainsFunc(page.Meta.Synonyms, func(f catalog.FiredSynonym) bool { return everyday[f.ID] && len(f.Added) > 0 })
		if len(page.Data) == 0 || page.Data[0].NomeServico != tt.want || !fired {
			t.Errorf("%q ranks %q first, meta.synonyms %+v; want %q first through a rule of 00015 or 00016", tt.q, names(page), page.Meta.Synonyms, tt.want)
		}
	}
}

// TestEveryEverydaySynonymFiresAloneFromItsRoot searches the root of each
// rule of migrations 00015 and 00016: the rule must fire (its words match as query
// words do), and no other rule may fire with it, since a query made of a
// root alone is matched whole by that root: another rule firing there
// would repeat a rule of 00010 or of the same set. Each rule is also one
// the API accepts as it stands.
func TestEveryEverydaySynonymFiresAloneFromItsRoot(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	rules := app.everydayRules(t)
	if len(rules) < 260 {
		t.Fatalf("migrations 00015 and 00016 added %d rules, want at least 260", len(rules))
	}
	for _, r := range rules {
		if r.Root == "" {
			continue
		}
		page := app.searchPage(t, url.Values{"q": {r.Root + " "}, "mode": {catalog.ModeKeyword}})
		if ids := firedIDs(page); !slices.Equal(ids, []string{r.ID}) {
			t.Errorf("query %q fired %+v; want only its own rule %s", r.Root, page.Meta.Synonyms, r.ID)
		}
	}
	for _, r := range rules {
		body := map[string]any{"synonyms": r.Synonyms}
		if r.Root != "" {
			body["root"] = r.Root
		}
		got := app.do(http.MethodPut, synonymsPath+"/"+r.ID, "catalog-admin", body)
		if got.Status != http.StatusOK {
			t.Errorf("rule %q %q is refused by the API: %d %s", r.Root, r.Synonyms, got.Status, got.Body)
			continue
		}
		if s := got.synonym(t, http.StatusOK); s.Root != r.Root || !slices.Equal(s.Synonyms, r.Synonyms) {
			t.Errorf("rule %q %q is stored by the API as %q %q", r.Root, r.Synonyms, s.Root, s.Synonyms)
		}
	}
}

// TestEverydaySynonymsLeaveCommonWordsAlone: a word a citizen types in
// every kind of query fires no rule of migrations 00015 and 00016 on its own; only
// phrases and specific words do.
func TestEverydaySynonymsLeaveCommonWordsAlone(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	everyday := map[string]bool{}
	for _, r := range app.everydayRules(t) {
		everyday[r.ID] = true
	}
	for _, q := range []string{
		"casa", "rua", "pagar", "imposto", "taxa", "lixo", "carro", "escola", "saúde", "cachorro",
		"água", "luz", "árvore", "prefeitura", "documento", "ônibus", "multa", "obra", "vaga", "empresa",
		"cartão", "conta", "nome", "terreno", "poste", "calçada", "idoso", "criança", "ajuda", "fazer",
	} {
		page := app.searchPage(t, url.Values{"q": {q + " "}, "mode": {catalog.ModeKeyword}})
		if slices.ContainsFunc(page.Meta.Synonyms, func(f catalog.FiredSynonym) bool { return everyday[f.ID] }) {
			t.Errorf("the common word %q fired %+v", q, page.Meta.Synonyms)
		}
	}
	if page := app.searchPage(t, url.Values{"q": {"casa "}, "mode": {catalog.ModeKeyword}}); page.Meta.Synonyms != nil {
		t.Errorf("%q fired %+v; want no rule at all", "casa", page.Meta.Synonyms)
	}
}
