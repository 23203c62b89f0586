import HTTPServer

/// The router of the Taxipot HTTP API: every endpoint group registers its routes here.
public func makeRouter(context: ServiceContext) -> Router {
    let router = Router()
    registerSystemEndpoints(router, context)
    registerCoordinatesEndpoints(router, context)
    registerFaresEndpoints(router, context)
    registerRoutingEndpoints(router, context)
    registerCoverageEndpoints(router, context)
    registerTableEndpoints(router, context)
    registerPartiesEndpoints(router, context)
    registerPoolingEndpoints(router, context)
    registerPlacesEndpoints(router, context)
    registerMapEndpoints(router, context)
    registerPageEndpoints(router, context.configuration)
    return router
}
