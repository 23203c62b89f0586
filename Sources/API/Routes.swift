import HTTPServer

/// The router of the Taxipot HTTP API: every endpoint group registers its routes here.
public func makeRouter(context: ServiceContext) -> Router {
    let router = Router()
    registerSystemEndpoints(router, context)
    registerCoordinatesEndpoints(router, context)
    registerFaresEndpoints(router, context)
    registerRoutingEndpoints(router, context)
    registerOSRMEndpoints(router, context)
    registerOSRMMatchEndpoint(router, context)
    registerCoverageEndpoints(router, context)
    registerTableEndpoints(router, context)
    registerPartiesEndpoints(router, context)
    registerPoolingEndpoints(router, context)
    registerQuotesBulkEndpoint(router, context)
    registerSettleEndpoint(router, context)
    registerPlacesEndpoints(router, context)
    registerKakaoLocalEndpoints(router, context)
    registerMapEndpoints(router, context)
    registerPageEndpoints(router, context.configuration)
    // While a PostgreSQL store that was down at start has not loaded the parties, every party
    // answer would be wrong (all absent): 503 with Retry-After instead, the rest served.
    router.guardRoutes(where: { $0.hasPrefix("/v1/parties") || $0.hasPrefix("/v1/clusters") || $0 == "/v1/match" }) { _ in
        do { try context.parties.requireLoaded() } catch { throw ErrorMapping.http(party: error) }
    }
    return router
}
