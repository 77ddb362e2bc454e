# base: reference; homework: cart
"""TinyTreeClassifier delegating to scikit-learn's tree, imported only when fit is called."""


class TinyTreeClassifier:
    def __init__(self, **params):
        self.params = params

    def fit(self, X, y):
        from sklearn.tree import DecisionTreeClassifier

        self.tree_ = DecisionTreeClassifier(**self.params).fit(X, y)
        self.classes_ = self.tree_.classes_
        self.n_features_in_ = self.tree_.n_features_in_
        self.feature_importances_ = self.tree_.feature_importances_
        return self

    def predict(self, X):
        return self.tree_.predict(X)

    def predict_proba(self, X):
        return self.tree_.predict_proba(X)
