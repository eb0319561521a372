import Hummingbird

/// Page numbers of a list: `page` from the query (1 when absent or bad), at most `maximumPage`
/// so that no request makes the database skip an unbounded number of rows.
struct AdminPaging {
    static let maximumPage = 400

    let page: Int
    let size: Int

    init(_ request: Request, size: Int) {
        let asked = request.uri.queryParameters["page"].flatMap { Int(String($0)) } ?? 1
        page = min(max(asked, 1), Self.maximumPage)
        self.size = size
    }

    var offset: Int { (page - 1) * size }
    /// Ask for one row more than shown, to know whether a next page exists.
    var limit: Int { size + 1 }

    /// The page's rows out of those fetched with ``limit``, and links to the previous and next
    /// page of `base`.
    func cut<Row>(_ fetched: [Row], base: String) -> (rows: [Row], previous: String?, next: String?) {
        let separator = base.contains("?") ? "&" : "?"
        let previous = page > 1 ? base + separator + "page=\(page - 1)" : nil
        let next = fetched.count > size && page < Self.maximumPage ? base + separator + "page=\(page + 1)" : nil
        return (Array(fetched.prefix(size)), previous, next)
    }
}
