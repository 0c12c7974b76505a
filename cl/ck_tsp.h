/*
 * ck_tsp.h - TSPLIB distances, written once for host C (the reader, ref
 * steps, tour lengths) and OpenCL C (kernels that compute distances from
 * coordinates on the fly).
 *
 * The definitions follow the TSPLIB specification (Reinelt, 1995):
 *   EUC_2D   nint(sqrt(dx^2 + dy^2)), nint(v) = (int)(v + 0.5)
 *   CEIL_2D  ceil(sqrt(dx^2 + dy^2))
 *   ATT      r = sqrt((dx^2 + dy^2) / 10), t = nint(r), t + 1 if t < r
 *   GEO      x is the latitude and y the longitude, both DDD.MM (degrees,
 *            then minutes as the fraction's first two digits); radians
 *            are pi (deg + 5 min / 3) / 180 with pi = 3.141592 and deg
 *            the integer part, and the distance is
 *            (int)(6378.388 acos((1 + q1) q2 / 2 - (1 - q1) q3 / 2) + 1)
 *            with q1 = cos(dlongitude), q2 = cos(dlatitude) and
 *            q3 = cos(latitude_i + latitude_j).
 * Coordinates are doubles where the language has them (ck_tsp_coord);
 * a device without fp64 works in float and its distances can be off by
 * one for coordinates beyond about 10^6, which is why the host always
 * recomputes a reported tour's length exactly.
 */
#ifndef CK_TSP_H
#define CK_TSP_H

#include "ck_prelude.h"

#if CK_HAS_FP64
typedef double ck_tsp_coord;
#define CK_TSP_C(x) ((double)(x))
#else
typedef float ck_tsp_coord;
#define CK_TSP_C(x) ((float)(x))
#endif

/* Metric ids, equal to ck_tsp_metric in clkit/tsp.h. */
#define CK_TSP_METRIC_EUC_2D 0
#define CK_TSP_METRIC_CEIL_2D 1
#define CK_TSP_METRIC_ATT 2
#define CK_TSP_METRIC_GEO 3
#define CK_TSP_METRIC_EXPLICIT 4

CK_FN int ck_tsp_nint(ck_tsp_coord v) {
  return (int)(v + CK_TSP_C(0.5));
}

/* Radians of a DDD.MM coordinate. */
CK_FN ck_tsp_coord ck_tsp_geo_radians(ck_tsp_coord v) {
  int degrees = (int)v;
  ck_tsp_coord minutes = v - (ck_tsp_coord)degrees;
  return CK_TSP_C(3.141592) *
         ((ck_tsp_coord)degrees + CK_TSP_C(5.0) * minutes / CK_TSP_C(3.0)) /
         CK_TSP_C(180.0);
}

/* The distance of a coordinate metric between (xi, yi) and (xj, yj). */
CK_FN int ck_tsp_coordinate_distance(int metric, ck_tsp_coord xi,
                                     ck_tsp_coord yi, ck_tsp_coord xj,
                                     ck_tsp_coord yj) {
  ck_tsp_coord dx = xi - xj, dy = yi - yj;
  if (metric == CK_TSP_METRIC_EUC_2D)
    return ck_tsp_nint(sqrt(dx * dx + dy * dy));
  if (metric == CK_TSP_METRIC_CEIL_2D)
    return (int)ceil(sqrt(dx * dx + dy * dy));
  if (metric == CK_TSP_METRIC_ATT) {
    ck_tsp_coord r = sqrt((dx * dx + dy * dy) / CK_TSP_C(10.0));
    int t = ck_tsp_nint(r);
    return (ck_tsp_coord)t < r ? t + 1 : t;
  }
  /* GEO */
  ck_tsp_coord lat_i = ck_tsp_geo_radians(xi), lon_i = ck_tsp_geo_radians(yi);
  ck_tsp_coord lat_j = ck_tsp_geo_radians(xj), lon_j = ck_tsp_geo_radians(yj);
  ck_tsp_coord q1 = cos(lon_i - lon_j);
  ck_tsp_coord q2 = cos(lat_i - lat_j);
  ck_tsp_coord q3 = cos(lat_i + lat_j);
  ck_tsp_coord c =
      CK_TSP_C(0.5) * ((CK_TSP_C(1.0) + q1) * q2 - (CK_TSP_C(1.0) - q1) * q3);
  /* Rounding may take c a hair past +-1, where acos has no value. */
  c = c > CK_TSP_C(1.0)    ? CK_TSP_C(1.0)
      : c < CK_TSP_C(-1.0) ? CK_TSP_C(-1.0)
                           : c;
  return (int)(CK_TSP_C(6378.388) * acos(c) + CK_TSP_C(1.0));
}

#endif /* CK_TSP_H */
