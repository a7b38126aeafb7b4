package org.apache.flink.table.runtime.typeutils;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.api.common.typeutils.TypeSerializer;
public final class ArrayDataSerializer extends TypeSerializer<Object> {
  private static final long serialVersionUID = 1L;
  private final LogicalType eleType; private final TypeSerializer<Object> eleSer;
  public ArrayDataSerializer(LogicalType eleType, TypeSerializer<Object> eleSer) { this.eleType = eleType; this.eleSer = eleSer; }
}
