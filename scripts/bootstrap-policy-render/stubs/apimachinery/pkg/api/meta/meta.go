package meta

import "fmt"

type Object interface {
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
}

func Accessor(obj interface{}) (Object, error) {
	if o, ok := obj.(Object); ok {
		return o, nil
	}
	return nil, fmt.Errorf("%T has no object meta", obj)
}
