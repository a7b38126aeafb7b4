package org.apache.flink.table.types.logical;
import org.apache.flink.table.catalog.ObjectIdentifier;
public final class DistinctType extends UserDefinedType {
  private static final long serialVersionUID = 1L;
  private final LogicalType sourceType;
  public DistinctType(boolean nullable, ObjectIdentifier id, LogicalType source) { super(nullable, LogicalTypeRoot.DISTINCT_TYPE, id, true); sourceType = source; }
}
