package embedding

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Gemini calls the Gemini API's embedContent, asking for the schema's
// dimension with outputDimensionality.
type Gemini struct {
	// BaseURL is the API root, e.g. https://generativelanguage.googleapis.com.
	BaseURL   string
	Key       string
	ModelName string
	Client    *http.Client
}

type geminiPart struct {
	Text string `json:"text"`
}

type geminiRequest struct {
	Model   string `json:"model"`
	Content struct {
		Parts []geminiPart `json:"parts"`
	} `json:"content"`
	TaskType             string `json:"taskType"`
	OutputDimensionality int    `json:"outputDimensionality"`
}

type geminiResponse struct {
	Embedding struct {
		Values []float32 `json:"values"`
	} `json:"embedding"`
}

// Model implements Provider.
func (g *Gemini) Model() string { return "gemini/" + g.ModelName }

// Embed implements Provider. Vectors below the model's full size come back
// unnormalized from the API; checkVector normalizes them.
func (g *Gemini) Embed(ctx context.Context, text string, dims int) ([]float32, error) {
	req := geminiRequest{Model: "models/" + g.ModelName, TaskType: "RETRIEVAL_DOCUMENT", OutputDimensionality: dims}
	req.Content.Parts = []geminiPart{{Text: text}}
	endpoint := strings.TrimSuffix(g.BaseURL, "/") + "/v1beta/models/" + url.PathEscape(g.ModelName) + ":embedContent"
	var resp geminiResponse
	if err := postJSON(ctx, g.Client, "gemini", endpoint, map[string]string{"x-goog-api-key": g.Key}, req, &resp); err != nil {
		return nil, err
	}
	return checkVector(resp.Embedding.Values, dims)
}
