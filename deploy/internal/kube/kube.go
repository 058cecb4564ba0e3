// Package kube renders kustomizations offline and decodes every object they
// produce into its typed Kubernetes API struct, refusing fields the struct
// does not know, so a typo in a manifest fails a test instead of a deploy.
package kube

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Object is one rendered object: its identity and its typed value, a
// pointer to a k8s.io/api struct such as *appsv1.Deployment.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Value      any
}

// Render builds the kustomization in dir with kustomize's default options and
// strictly decodes every resulting object.
func Render(dir string) ([]Object, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	objs := make([]Object, 0, rm.Size())
	for _, r := range rm.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: encode: %w", r.CurId(), err)
		}
		obj, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.CurId(), err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// All returns the values of objs whose typed value is a *T, in order.
func All[T any](objs []Object) []*T {
	var out []*T
	for _, o := range objs {
		if v, ok := o.Value.(*T); ok {
			out = append(out, v)
		}
	}
	return out
}
